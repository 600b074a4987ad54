; Three known crates at the port, two new crates that can be acquired.
; The sensitive red crate must be shipped and new cargo acquired.
(define (problem port-red)
  (:domain port)
  (:objects red blue green n1 n2 - crate)
  (:init (at-port red) (at-port blue) (at-port green)
         (offsite n1) (offsite n2) (new n1) (new n2))
  (:goal (and (on-ship red) (restocked))))
