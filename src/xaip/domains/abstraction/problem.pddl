; xaip bundled example for abstraction-based explanations, MIT
; c lies on a; the task is to put a on b
(define (problem a-on-b)
  (:domain stacking)
  (:objects a b c - block)
  (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty))
  (:goal (on a b)))
