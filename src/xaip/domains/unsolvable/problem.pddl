; The map was transcribed without the road to the harbour: nothing reaches it.
(define (problem deliver-two)
  (:domain delivery)
  (:objects van - truck
            books tools - parcel
            depot market harbour - place)
  (:init (truck-at van depot)
         (parcel-at books depot) (parcel-at tools depot)
         (road depot market) (road market depot)
         (road harbour market))
  (:goal (and (parcel-at books market)
              (parcel-at tools harbour)
              (truck-at van depot))))
