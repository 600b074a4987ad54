;; Travelling to the airport: the running example of the TLdR paper (Sreedharan,
;; Srivastava and Kambhampati, AAAI 2020, figure 1), written for xaip (MIT licence).
;;
;; A traveller at home must board a flight. A taxi goes straight to the airport but
;; rarely comes; the bus to station 1 runs late now and then, the train from there is
;; sometimes diverted to station 2, and at the shuttle station chance decides which
;; platform the airport shuttle leaves from. At the airport the security queue may take
;; a while. Every step costs 1, so a good policy takes the bus and the train: its
;; summary names subgoals (station 1, the shuttle station) that other policies avoid.

(define (domain airport-travel)
  (:requirements :strips :typing :probabilistic-effects)
  (:types location flight)
  (:predicates
    (at ?l - location)
    (path ?from ?to - location)
    (bus-line ?from ?to - location)
    (rail-line ?from ?to ?diverted - location)
    (shuttle-stop ?station ?platform - location)
    (shuttle-line ?platform ?airport - location)
    (taxi-rank ?l - location)
    (taxi-waiting)
    (terminal ?l - location)
    (passed-security)
    (gate-of ?f - flight ?g - location)
    (boarded ?f - flight))

  (:action walk
    :parameters (?from ?to - location)
    :precondition (and (at ?from) (path ?from ?to))
    :effect (and (at ?to) (not (at ?from))))

  (:action call-taxi
    :parameters (?l - location)
    :precondition (and (at ?l) (taxi-rank ?l) (not (taxi-waiting)))
    :effect (probabilistic 1/10 (taxi-waiting)))

  (:action ride-taxi
    :parameters (?from ?to - location)
    :precondition (and (at ?from) (taxi-waiting) (terminal ?to))
    :effect (and (at ?to) (not (at ?from)) (not (taxi-waiting))))

  (:action take-bus
    :parameters (?from ?to - location)
    :precondition (and (at ?from) (bus-line ?from ?to))
    :effect (probabilistic 4/5 (and (at ?to) (not (at ?from)))))

  (:action take-train
    :parameters (?from ?to ?diverted - location)
    :precondition (and (at ?from) (rail-line ?from ?to ?diverted))
    :effect (and (not (at ?from))
                 (probabilistic 7/10 (at ?to)
                                3/10 (at ?diverted))))

  (:action go-to-platform
    :parameters (?station ?north ?south - location)
    :precondition (and (at ?station) (shuttle-stop ?station ?north) (shuttle-stop ?station ?south)
                       (not (= ?north ?south)))
    :effect (and (not (at ?station))
                 (probabilistic 1/2 (at ?north)
                                1/2 (at ?south))))

  (:action ride-shuttle
    :parameters (?platform ?airport - location)
    :precondition (and (at ?platform) (shuttle-line ?platform ?airport))
    :effect (and (at ?airport) (not (at ?platform))))

  (:action pass-security
    :parameters (?l - location)
    :precondition (and (at ?l) (terminal ?l) (not (passed-security)))
    :effect (probabilistic 4/5 (passed-security)))

  (:action go-to-gate
    :parameters (?l ?g - location ?f - flight)
    :precondition (and (at ?l) (terminal ?l) (passed-security) (gate-of ?f ?g))
    :effect (and (at ?g) (not (at ?l))))

  (:action board
    :parameters (?g - location ?f - flight)
    :precondition (and (at ?g) (gate-of ?f ?g))
    :effect (boarded ?f)))
