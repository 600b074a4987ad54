; The commander's model of the robot (book ch. 7): the same actions as the robot's own.
; The two models differ only in which passages are clear (see human-problem.pddl).
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
