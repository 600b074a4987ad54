;; The traveller of the TLdR running example: home to flight 42 at gate 10 (xaip, MIT).
(define (problem to-the-airport)
  (:domain airport-travel)
  (:objects home the-bus-stop station1 station2 the-shuttle-station
            the-north-platform the-south-platform the-airport gate10 - location
            flight-42 - flight)
  (:init (at home)
         (path home the-bus-stop)
         (path station2 the-shuttle-station)
         (taxi-rank home)
         (bus-line the-bus-stop station1)
         (rail-line station1 the-shuttle-station station2)
         (shuttle-stop the-shuttle-station the-north-platform)
         (shuttle-stop the-shuttle-station the-south-platform)
         (shuttle-line the-north-platform the-airport)
         (shuttle-line the-south-platform the-airport)
         (terminal the-airport)
         (gate-of flight-42 gate10))
  (:goal (boarded flight-42)))
