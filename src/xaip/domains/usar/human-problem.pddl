; The commander's known beliefs about the site: the blueprint, and that the robot's hand
; works. Whether P1-P9 and P4-P5 are passable is uncertain: see annotations.txt.
(define (problem usar-p1-p5)
  (:domain usar)
  (:objects p1 p2 p3 p4 p5 p6 p7 p8 p9 - waypoint)
  (:init (at p1) (hand_capable)
         (passage p9 p5)
         (passage p1 p2) (passage p2 p3) (passage p3 p7) (passage p7 p5)
         (passage p3 p4)
         (passage p1 p6) (passage p6 p8)
         (rubble p6 p5))
  (:goal (at p5)))
