; Deliver a1 and a2 (both from factory A): the book's plan-2 setting.
(define (problem truck-a1-a2)
  (:domain truck)
  (:objects a1 a2 b1 b2 - package fa fb - factory)
  (:init (at a1 fa) (at a2 fa) (at b1 fb) (at b2 fb))
  (:goal (and (loaded a1) (loaded a2))))
