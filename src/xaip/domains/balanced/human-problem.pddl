; The commander's view: P2-P3 is blocked and P16-P17 is clear (both wrong), so she
; expects the route P1-P7-P15-P16-P17 (4 moves).
(define (problem usar-balanced-human)
  (:domain usar-balanced)
  (:objects p1 p2 p3 p4 p5 p6 p7 p8 p9 p15 p16 p17 - waypoint)
  (:init (at p1)
         (clear p1 p2) (clear p3 p4) (clear p4 p9) (clear p9 p17)
         (clear p1 p7) (clear p7 p15) (clear p15 p16) (clear p16 p17)
         (clear p1 p5) (rubble p5 p6) (clear p6 p8) (clear p8 p17)
         (= (total-cost) 0))
  (:goal (at p17))
  (:metric minimize (total-cost)))
