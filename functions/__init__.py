"""Lambda functions, one folder each (the CodeUri in template.yaml): analyze/, jobs/, batch/, page/; and
common/, the code they share (CommonLayer). kibitz/ runs them on this machine."""
