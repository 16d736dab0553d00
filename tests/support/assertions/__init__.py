"""What the tests compare with: upstream data (the shared folder), the CRD and engine schemas
as validators, equality of loaded YAML."""
