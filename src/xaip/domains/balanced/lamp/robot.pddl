; Learning from watching (docs/balanced.md section 6): pushing the cart switches the light off.
(define (domain lamp) (:requirements :strips :action-costs)
  (:predicates (moved) (light)) (:functions (total-cost) - number)
  (:action push :parameters ()
    :effect (and (moved) (not (light)) (increase (total-cost) 1)))
  (:action switch :parameters ()
    :effect (and (light) (increase (total-cost) 1))))
