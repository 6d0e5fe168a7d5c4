"""Code the Lambda functions share: the API's models, its error format, and batch jobs.

On Lambda this package comes from CommonLayer (layers/common/Makefile ships it as
/opt/python/functions/common); locally it is imported from the project. It never imports
kibitz, and only `jobs` needs boto3.
"""
