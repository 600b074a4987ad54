(define (problem fetch-24)
  (:domain fetch)
  (:objects b1 - block loc1 loc2 - location)
  (:init
    (robot-at loc1)
    (hand-empty)
    (block-at b1 loc2))
  (:goal (and (block-at b1 loc1)))
)
