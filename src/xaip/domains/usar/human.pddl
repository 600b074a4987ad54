; What the commander is known to believe about the robot's actions. Whether she thinks
; clearing rubble needs the hand is uncertain: see annotations.txt.
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
    :precondition (and (at ?from) (rubble ?from ?to))
    :effect (and (passage ?from ?to) (not (rubble ?from ?to)))))
