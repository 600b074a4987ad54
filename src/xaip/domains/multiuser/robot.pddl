; The robot's model of a small firefighting task (after the book's RADAR example, ch. 10).
; Written for xaip. Deploying a unit needs the fire chief alerted (and uses the alert up);
; the big engines also need the road cleared first, which is police business.
(define (domain firefighting)
  (:requirements :strips)
  (:predicates (alerted) (road_clear) (engines) (rescuers) (fire_out))
  (:action alert_chief :parameters () :precondition (and) :effect (alerted))
  (:action clear_road :parameters () :precondition (and) :effect (road_clear))
  (:action deploy_big_engines :parameters ()
    :precondition (and (alerted) (road_clear))
    :effect (and (engines) (not (alerted))))
  (:action deploy_rescuers :parameters ()
    :precondition (alerted)
    :effect (and (rescuers) (not (alerted))))
  (:action extinguish :parameters ()
    :precondition (and (engines) (rescuers))
    :effect (fire_out)))
