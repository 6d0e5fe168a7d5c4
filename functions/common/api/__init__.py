"""What every function behind API Gateway shares: the analysis API's models and error body (models.py),
the error format and handler decorators (http.py), the init phase (init_phase.py), telemetry."""
