(define (domain v) (:requirements :strips)
  (:predicates (ready) (done))
  (:action prep :parameters () :precondition (and) :effect (and))
  (:action go :parameters () :precondition (ready) :effect (done)))
