; USAR medkit grid (book ch. 4 and 9): fetch a medkit, then treat the victim.
; Treating ends the mission (the robot is no longer active), so plans end with treat.
(define (domain medkit)
  (:requirements :strips :typing)
  (:types cell kit)
  (:predicates (robot-at ?c - cell) (adjacent ?a ?b - cell) (kit-at ?k - kit ?c - cell)
               (holding ?k - kit) (hand-empty) (victim-at ?c - cell)
               (untreated) (treated) (active))
  (:action move
    :parameters (?from ?to - cell)
    :precondition (and (active) (robot-at ?from) (adjacent ?from ?to))
    :effect (and (robot-at ?to) (not (robot-at ?from))))
  (:action pickup
    :parameters (?k - kit ?c - cell)
    :precondition (and (active) (robot-at ?c) (kit-at ?k ?c) (hand-empty))
    :effect (and (holding ?k) (not (kit-at ?k ?c)) (not (hand-empty))))
  (:action treat
    :parameters (?k - kit ?c - cell)
    :precondition (and (robot-at ?c) (victim-at ?c) (holding ?k) (untreated))
    :effect (and (treated) (not (untreated)) (not (active)))))
