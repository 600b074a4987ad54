; Port management (book ch. 4, goal legibility; our recreation, see docs/observers.md).
; The port agent loads crates onto the ship and acquires new cargo from offsite.
; "restocked" records that new cargo arrived, which every candidate goal asks for.
(define (domain port)
  (:requirements :strips :typing)
  (:types crate)
  (:predicates (at-port ?c - crate) (on-ship ?c - crate) (offsite ?c - crate)
               (new ?c - crate) (restocked))
  (:action load
    :parameters (?c - crate)
    :precondition (at-port ?c)
    :effect (and (on-ship ?c) (not (at-port ?c))))
  (:action acquire
    :parameters (?c - crate)
    :precondition (and (offsite ?c) (new ?c))
    :effect (and (at-port ?c) (restocked) (not (offsite ?c)))))
