;; xaip bundled example, MIT. The book's restaurant robot (ch. 3): a waiter robot
;; carries food from the kitchen to a booth on a 3x3 grid. The robot moves only through
;; open passages; the person believes more passages are open than really are.
(define (domain restaurant)
  (:requirements :strips :typing)
  (:types cell)
  (:predicates (at ?c - cell) (open ?from ?to - cell) (food-at ?c - cell) (holding)
               (hand-empty))
  (:action move
    :parameters (?from ?to - cell)
    :precondition (and (at ?from) (open ?from ?to))
    :effect (and (not (at ?from)) (at ?to)))
  (:action pick-up
    :parameters (?c - cell)
    :precondition (and (at ?c) (food-at ?c) (hand-empty))
    :effect (and (holding) (not (food-at ?c)) (not (hand-empty))))
  (:action put-down
    :parameters (?c - cell)
    :precondition (and (at ?c) (holding))
    :effect (and (food-at ?c) (hand-empty) (not (holding)))))
