(define (problem p) (:domain lamp) (:init (= (total-cost) 0))
  (:goal (and (moved) (light))) (:metric minimize (total-cost)))
