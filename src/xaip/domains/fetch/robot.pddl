; xaip bundled example, MIT. The Fetch robot of "Explainable Human-AI Interaction"
; (ch. 5): the robot's own model. Moving needs the hand tucked and the torso crouched;
; tucking the arm also lowers the torso.
(define (domain fetch)
  (:requirements :strips :typing)
  (:types block location)
  (:predicates (robot-at ?l - location) (block-at ?b - block ?l - location)
               (holding ?b - block) (hand-empty) (hand-tucked) (crouched))

  (:action move
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (hand-tucked) (crouched))
    :effect (and (robot-at ?to) (not (robot-at ?from))))

  (:action tuck
    :parameters ()
    :effect (and (hand-tucked) (crouched)))

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
