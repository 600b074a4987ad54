(define (problem p) (:domain v) (:init) (:goal (done)))
