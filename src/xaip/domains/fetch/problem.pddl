; xaip bundled example, MIT. Carry block b1 from loc1 to loc2.
(define (problem carry-b1)
  (:domain fetch)
  (:objects b1 - block loc1 loc2 - location)
  (:init (block-at b1 loc1) (robot-at loc1) (hand-empty))
  (:goal (block-at b1 loc2)))
