module tars-go-example

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v3.259.0
