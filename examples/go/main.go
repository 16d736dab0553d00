// The tars components from Go: a framework, a template and a Tars server, through the Python
// component provider in ../../plugin (`pulumi install` generates the SDK into sdks/tars).
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/tars-components/tars-components/sdk/go/tars"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		namespace := cfg.Get("namespace")
		if namespace == "" {
			namespace = "tars-dev"
		}
		orderImage := cfg.Get("orderImage")
		if orderImage == "" {
			orderImage = "reg.example.com/shop/order:v1"
		}
		mode := tars.ModeEXPAND

		framework, err := tars.NewTFramework(ctx, "fw", &tars.TFrameworkArgs{
			Namespace: namespace,
			Mode:      &mode,
			Config: &tars.FrameworkConfigArgs{
				NodeImage:   tars.ImageRefArgs{Image: "reg.example.com/tars/tarsnode:v1.4.0"},
				ImageBuild:  tars.ImageBuildArgs{Executor: tars.ImageRefArgs{Image: "reg.example.com/tars/kaniko:v1.4.0"}},
				ImageUpload: tars.RegistryRefArgs{Registry: "reg.example.com/shop"},
			},
			Templates: map[string]string{"tars.cpp": "tars.default", "tars.default": "tars.default"},
		})
		if err != nil {
			return err
		}

		template, err := tars.NewTTemplate(ctx, "shop-template", &tars.TTemplateArgs{
			Framework:    namespace,
			TemplateName: "tars.shop",
			Parent:       "tars.cpp",
			Content:      "<tars><application><server>logLevel=INFO</server></application></tars>",
		}, pulumi.DependsOn([]pulumi.Resource{framework}))
		if err != nil {
			return err
		}

		subType := tars.SubTypeTARS
		order, err := tars.NewTServer(ctx, "shop-order", &tars.TServerArgs{
			Framework: namespace,
			App:       pulumi.String("Shop"),
			Server:    pulumi.String("Order"),
			SubType:   &subType,
			Tars: &tars.TarsSpecArgs{
				Template: pulumi.String("tars.shop"),
				Servants: []tars.ServantArgs{
					{Name: pulumi.String("OrderObj"), Port: pulumi.Int(10000), Thread: pulumi.Int(5)},
					{Name: pulumi.String("AdminObj"), Port: pulumi.Int(10001)},
				},
			},
			K8s: &tars.K8sSpecArgs{
				Replicas: pulumi.Int(2),
				Env:      []tars.EnvVarArgs{{Name: pulumi.String("LOG_LEVEL"), Value: pulumi.String("debug")}},
			},
			Release: &tars.ReleaseArgs{Id: pulumi.String("v1"), Image: pulumi.String(orderImage)},
		}, pulumi.DependsOn([]pulumi.Resource{framework, template}))
		if err != nil {
			return err
		}

		ctx.Export("objects", order.Objects)
		ctx.Export("objectName", order.ObjectName)
		return nil
	})
}
