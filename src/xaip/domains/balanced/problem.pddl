; The robot's view: from P1 to P17. Three routes: P1-P2-P3-P4-P9-P17 (5 moves),
; P1-P7-P15-P16-P17 (blocked at P16-P17) and P1-P5-P6-P8-P17 with rubble on P5-P6
; (clear_passage plus 4 moves, cost 6).
(define (problem usar-balanced-robot)
  (:domain usar-balanced)
  (:objects p1 p2 p3 p4 p5 p6 p7 p8 p9 p15 p16 p17 - waypoint)
  (:init (at p1)
         (clear p1 p2) (clear p2 p3) (clear p3 p4) (clear p4 p9) (clear p9 p17)
         (clear p1 p7) (clear p7 p15) (clear p15 p16)
         (clear p1 p5) (rubble p5 p6) (clear p6 p8) (clear p8 p17)
         (= (total-cost) 0))
  (:goal (at p17))
  (:metric minimize (total-cost)))
