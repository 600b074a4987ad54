(define (domain v) (:requirements :strips)
  (:predicates (ready) (done))
  (:action prep :parameters () :precondition (and) :effect (ready))
  (:action go :parameters () :precondition (ready) :effect (done)))
