;; xaip bundled example, MIT. Restaurant: serve booth c02 (the robot's real passages).
(define (problem serve-c02)
  (:domain restaurant)
  (:objects c00 c01 c02 c10 c11 c12 c20 c21 c22 - cell)
  (:init (at c10) (food-at c10) (hand-empty)
         (open c00 c10) (open c10 c00) (open c02 c12) (open c12 c02)
         (open c10 c20) (open c20 c10) (open c12 c22) (open c22 c12)
         (open c20 c21) (open c21 c20) (open c21 c22) (open c22 c21))
  (:goal (food-at c02)))
