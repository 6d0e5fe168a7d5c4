"""Lambda functions (one folder each, the CodeUri in template.yaml) and `local/`, the kibitz command."""
