; The truck of book §9.2 (Figure 9.3): packages wait at two factories; loading a package
; drives the truck there and puts the package on board. Recreated for xaip (MIT).
(define (domain truck)
  (:requirements :strips :typing)
  (:types package factory)
  (:predicates (at ?p - package ?f - factory)
               (loaded ?p - package))
  (:action load
    :parameters (?p - package ?f - factory)
    :precondition (at ?p ?f)
    :effect (and (loaded ?p) (not (at ?p ?f)))))
