(define (domain store)
 (:requirements :typing)
 (:types hoist surface place area - object
         depot - place
         storearea transitarea - area
         area crate - surface)
 (:predicates (clear ?s - storearea)
              (in ?x - (either storearea crate) ?p - place)
              (available ?h - hoist)
              (lifting ?h - hoist ?c - crate)
              (at ?h - hoist ?a - area)
              (on ?c - crate ?s - storearea)
              (connected ?a1 ?a2 - area))
 (:action lift
  :parameters (?h - hoist ?c - crate ?a1 - storearea ?a2 - area ?p - place)
  :precondition (and (connected ?a1 ?a2) (at ?h ?a2) (available ?h)
                     (on ?c ?a1) (in ?a1 ?p))
  :effect (and (not (on ?c ?a1)) (clear ?a1) (not (available ?h)) (lifting ?h ?c)
               (not (in ?c ?p))))
 (:action drop
  :parameters (?h - hoist ?c - crate ?a1 - storearea ?a2 - area ?p - place)
  :precondition (and (connected ?a1 ?a2) (at ?h ?a2) (lifting ?h ?c) (clear ?a1) (in ?a1 ?p))
  :effect (and (not (lifting ?h ?c)) (available ?h) (not (clear ?a1)) (on ?c ?a1) (in ?c ?p)))
 (:action mark
  :parameters (?x - (either storearea crate) ?p - place)
  :precondition (in ?x ?p)
  :effect (not (in ?x ?p))))
