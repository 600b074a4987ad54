; Urban search and reconnaissance, balanced version (book ch. 7, recreated instance).
; The robot moves between waypoints along passages that are clear; rubble on a passage
; can be cleared at twice the cost of a move. Passages are one-way, in the direction of
; travel, so each blocked or clear passage is one fact.
(define (domain usar-balanced)
  (:requirements :strips :typing :action-costs)
  (:types waypoint)
  (:predicates (at ?w - waypoint)
               (clear ?from ?to - waypoint)
               (rubble ?from ?to - waypoint))
  (:functions (total-cost) - number)
  (:action move
    :parameters (?from ?to - waypoint)
    :precondition (and (at ?from) (clear ?from ?to))
    :effect (and (at ?to) (not (at ?from)) (increase (total-cost) 1)))
  (:action clear_passage
    :parameters (?from ?to - waypoint)
    :precondition (and (at ?from) (rubble ?from ?to))
    :effect (and (clear ?from ?to) (not (rubble ?from ?to)) (increase (total-cost) 2))))
