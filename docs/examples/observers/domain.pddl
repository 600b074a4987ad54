; A rover on a grid of cells named r<row>c<column> (so xaip can draw it).
(define (domain rover)
  (:requirements :strips :typing)
  (:types cell)
  (:predicates (at ?c - cell) (adj ?a ?b - cell) (east ?a ?b - cell))
  (:action move
    :parameters (?from ?to - cell)
    :precondition (and (at ?from) (adj ?from ?to))
    :effect (and (at ?to) (not (at ?from)))))
