; Urban search and reconnaissance (book ch. 6, recreated from its narrative).
; The robot's own model: it cannot use its hand, the P1-P9 passage has collapsed,
; and clearing rubble needs the hand.
(define (domain usar)
  (:requirements :strips :typing)
  (:types waypoint)
  (:predicates (at ?w - waypoint)
               (passage ?from ?to - waypoint)
               (rubble ?from ?to - waypoint)
               (hand_capable)
               (visited ?w - waypoint))
  (:action move
    :parameters (?from ?to - waypoint)
    :precondition (and (at ?from) (passage ?from ?to))
    :effect (and (at ?to) (not (at ?from))))
  (:action clear_passage
    :parameters (?from ?to - waypoint)
    :precondition (and (at ?from) (rubble ?from ?to) (hand_capable))
    :effect (and (passage ?from ?to) (not (rubble ?from ?to)))))
