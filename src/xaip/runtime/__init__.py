"""Budgets, progress and other run-time services shared by all algorithms."""

from xaip.runtime.budget import Budget, BudgetClock

__all__ = ["Budget", "BudgetClock"]
