; A small ADL domain exercising typing hierarchies, constants, equality, negative
; preconditions, disjunction, quantifiers, conditional and universal effects, and costs.
(define (domain adl-rooms)
  (:requirements :adl :typing :action-costs :negative-preconditions :equality)
  (:types robot box - thing room)
  (:constants hall - room)
  (:predicates (at ?t - thing ?r - room) (door ?a ?b - room) (carrying ?r - robot ?b - box)
               (free ?r - robot) (lit ?r - room) (painted ?b - box))
  (:functions (total-cost) - number (distance ?a ?b - room) - number)
  (:action move
    :parameters (?r - robot ?from ?to - room)
    :precondition (and (at ?r ?from) (not (= ?from ?to))
                       (or (door ?from ?to) (door ?to ?from)))
    :effect (and (at ?r ?to) (not (at ?r ?from))
                 (forall (?b - box) (when (carrying ?r ?b) (and (at ?b ?to) (not (at ?b ?from)))))
                 (increase (total-cost) (distance ?from ?to))))
  (:action pick
    :parameters (?r - robot ?b - box ?room - room)
    :precondition (and (at ?r ?room) (at ?b ?room) (free ?r) (lit ?room))
    :effect (and (carrying ?r ?b) (not (free ?r)) (increase (total-cost) 1)))
  (:action drop
    :parameters (?r - robot ?b - box ?room - room)
    :precondition (and (at ?r ?room) (carrying ?r ?b))
    :effect (and (not (carrying ?r ?b)) (free ?r) (increase (total-cost) 1)))
  (:action switch-on
    :parameters (?r - robot ?room - room)
    :precondition (and (at ?r ?room) (not (lit ?room)))
    :effect (and (lit ?room) (increase (total-cost) 1)))
  (:action paint-all
    :parameters (?r - robot)
    :precondition (and (at ?r hall) (exists (?b - box) (at ?b hall))
                       (forall (?b - box) (imply (at ?b hall) (not (painted ?b)))))
    :effect (and (forall (?b - box) (when (at ?b hall) (painted ?b)))
                 (increase (total-cost) 2))))
