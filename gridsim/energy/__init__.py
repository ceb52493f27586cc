"""Energy, electricity prices and carbon: power models, signals over time, accounting."""
