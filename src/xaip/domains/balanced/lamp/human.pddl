; The person's model: she thinks pushing the cart also switches the light on.
(define (domain lamp) (:requirements :strips :action-costs)
  (:predicates (moved) (light)) (:functions (total-cost) - number)
  (:action push :parameters ()
    :effect (and (moved) (light) (increase (total-cost) 1)))
  (:action switch :parameters ()
    :effect (and (light) (increase (total-cost) 1))))
