; A delivery truck on a road map: it drives along roads, loads and unloads parcels.
(define (domain delivery)
  (:requirements :strips :typing)
  (:types truck parcel place)
  (:predicates (road ?from ?to - place)
               (truck-at ?t - truck ?p - place)
               (parcel-at ?x - parcel ?p - place)
               (in ?x - parcel ?t - truck))
  (:action drive
    :parameters (?t - truck ?from ?to - place)
    :precondition (and (truck-at ?t ?from) (road ?from ?to))
    :effect (and (not (truck-at ?t ?from)) (truck-at ?t ?to)))
  (:action load
    :parameters (?x - parcel ?t - truck ?p - place)
    :precondition (and (truck-at ?t ?p) (parcel-at ?x ?p))
    :effect (and (not (parcel-at ?x ?p)) (in ?x ?t)))
  (:action unload
    :parameters (?x - parcel ?t - truck ?p - place)
    :precondition (and (truck-at ?t ?p) (in ?x ?t))
    :effect (and (not (in ?x ?t)) (parcel-at ?x ?p))))
