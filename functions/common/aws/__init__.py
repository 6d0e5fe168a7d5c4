"""AWS clients: boto3's (clients.py) and a stdlib DynamoDB client (dynamodb_lite.py). Imports nothing of
the project."""
