; xaip bundled example, MIT. The Fetch robot as its user imagines it (book ch. 5): moving
; needs nothing but being somewhere, and tucking the arm only tucks the arm.
(define (domain fetch)
  (:requirements :strips :typing)
  (:types block location)
  (:predicates (robot-at ?l - location) (block-at ?b - block ?l - location)
               (holding ?b - block) (hand-empty) (hand-tucked) (crouched))

  (:action move
    :parameters (?from ?to - location)
    :precondition (robot-at ?from)
    :effect (and (robot-at ?to) (not (robot-at ?from))))

  (:action tuck
    :parameters ()
    :effect (hand-tucked))

  (:action crouch
    :parameters ()
    :effect (crouched))

  (:action pick-up
    :parameters (?b - block ?l - location)
    :precondition (and (hand-empty) (block-at ?b ?l) (robot-at ?l))
    :effect (and (holding ?b) (not (hand-empty)) (not (block-at ?b ?l))))

  (:action put-down
    :parameters (?b - block ?l - location)
    :precondition (and (holding ?b) (robot-at ?l))
    :effect (and (block-at ?b ?l) (hand-empty) (not (holding ?b)))))
