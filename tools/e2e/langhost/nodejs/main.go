// pulumi-language-nodejs for the e2e toolchain: runs a Node.js Pulumi program (TypeScript
// through ts-node, as the SDK's runner does) with the runner of the @pulumi/pulumi the program
// installed, installs its dependencies with the SDK's package-manager package, and generates
// and links a package's SDK for `pulumi package add` and `pulumi install`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/nodejs/npm"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"local/tools-pulumi/langhost/sdkgen"
	"local/tools-pulumi/langhost/serve"
)

// version is stamped by tools/e2e/toolchain (the CLI's version).
var version = "0.0.0"

type host struct {
	serve.Base
}

func main() {
	serve.Main(func(engineAddress string) pulumirpc.LanguageRuntimeServer {
		return &host{Base: serve.Base{EngineAddress: engineAddress, Version: version}}
	})
}

// resolve asks node where a module resolves from dir (require.resolve), as the runner would.
func resolve(ctx context.Context, dir, module string) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node is not on PATH: %w", err)
	}
	cmd := exec.CommandContext(ctx, node, "-e",
		"process.stdout.write(require.resolve(process.argv[1], {paths: [process.argv[2]]}))", module, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find %s from %s (run `pulumi install`): %s", module, dir,
			strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// nodeModules walks the program's node_modules (scoped packages too, nested ones as npm
// leaves them) for packages that declare a resource plugin.
func nodeModules(dir string) []serve.PluginJSON {
	var found []serve.PluginJSON
	var walk func(modules string, depth int)
	walk = func(modules string, depth int) {
		if depth > 4 {
			return
		}
		entries, err := os.ReadDir(modules)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
				continue
			}
			pkg := filepath.Join(modules, e.Name())
			if strings.HasPrefix(e.Name(), "@") {
				walk(pkg, depth)
				continue
			}
			if p, ok := serve.ReadPluginJSON(filepath.Join(pkg, "pulumi-plugin.json")); ok {
				found = append(found, p)
			}
			walk(filepath.Join(pkg, "node_modules"), depth+1)
		}
	}
	for d := dir; ; d = filepath.Dir(d) {
		walk(filepath.Join(d, "node_modules"), 0)
		if filepath.Dir(d) == d {
			break
		}
	}
	return found
}

func (h *host) GetRequiredPackages(
	_ context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{
		Packages: serve.Dependencies(nodeModules(req.GetInfo().GetProgramDirectory())),
	}, nil
}

func (h *host) GetRequiredPlugins(
	_ context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	deps := serve.Dependencies(nodeModules(req.GetInfo().GetProgramDirectory()))
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: serve.AsPlugins(deps)}, nil
}

// nodeEnv is what the SDK's runner reads besides its flags: TypeScript on unless the
// `typescript` runtime option is false, and an optional tsconfig.
func nodeEnv(info *pulumirpc.ProgramInfo) []string {
	env := []string{"PULUMI_NODEJS_TYPESCRIPT=true"}
	if serve.Option(info, "typescript") == "false" {
		env[0] = "PULUMI_NODEJS_TYPESCRIPT=false"
	}
	if tsconfig := serve.Option(info, "tsconfig"); tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}
	return env
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	runner, err := resolve(ctx, dir, "@pulumi/pulumi/cmd/run")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	args := []string{runner}
	args = serve.AppendArg(args, "monitor", req.GetMonitorAddress())
	args = serve.AppendArg(args, "engine", h.EngineAddress)
	args = serve.AppendArg(args, "project", req.GetProject())
	args = serve.AppendArg(args, "root-directory", req.GetInfo().GetRootDirectory())
	args = serve.AppendArg(args, "stack", req.GetStack())
	args = serve.AppendArg(args, "pwd", req.GetPwd())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		args = serve.AppendArg(args, "parallel", fmt.Sprint(req.GetParallel()))
	}
	args = serve.AppendArg(args, "organization", req.GetOrganization())
	program := req.GetInfo().GetEntryPoint()
	if program == "" {
		program = "."
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)
	config, err := serve.ConfigEnv(req.GetConfig(), req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(append(os.Environ(), config...), nodeEnv(req.GetInfo())...)
	cmd.Dir = dir
	return serve.RunProgram(cmd, "the Node.js program"), nil
}

func packageManager(info *pulumirpc.ProgramInfo) npm.PackageManagerType {
	if pm := serve.Option(info, "packagemanager"); pm != "" {
		return npm.PackageManagerType(pm)
	}
	return npm.AutoPackageManager
}

func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	stdout := serve.Streamer{Send: server.Send}
	stderr := serve.Streamer{Send: server.Send, Stderr: true}
	_, err := npm.Install(server.Context(), packageManager(req.GetInfo()), dir, false, stdout, stderr)
	return err
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out))}, nil
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	pm, err := npm.ResolvePackageManager(packageManager(req.GetInfo()), dir)
	if err != nil {
		return nil, err
	}
	packages, err := pm.ListPackages(ctx, dir, req.GetTransitiveDependencies())
	if err != nil {
		return nil, err
	}
	return serve.DependencyInfos(packages), nil
}

// RunPlugin runs a Node.js plugin with the SDK's plugin runner.
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	ctx := server.Context()
	dir := req.GetInfo().GetProgramDirectory()
	runner, err := resolve(ctx, dir, "@pulumi/pulumi/cmd/run-plugin")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{runner, dir}, req.GetArgs()...)...)
	cmd.Env = append(append(os.Environ(), req.GetEnv()...), nodeEnv(req.GetInfo())...)
	cmd.Dir = req.GetPwd()
	return serve.RunPlugin(ctx, cmd, server)
}

// GeneratePackage writes the package's TypeScript SDK (pkg/v3/codegen/nodejs).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return sdkgen.GeneratePackage(req, func(
		pkg *schema.Package, req *pulumirpc.GeneratePackageRequest, loader schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return codegen.GeneratePackage("pulumi-language-nodejs", pkg, req.GetExtraFiles(),
			req.GetLocalDependencies(), req.GetLocal(), loader)
	})
}

// Link adds each generated SDK to the program's package.json as a `file:` dependency, under
// the name its own package.json gives it, with the program's package manager.
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	pm, err := npm.ResolvePackageManager(packageManager(req.GetInfo()), dir)
	if err != nil {
		return nil, err
	}
	var imports strings.Builder
	for _, dep := range req.GetPackages() {
		data, err := os.ReadFile(filepath.Join(dir, dep.GetPath(), "package.json"))
		if err != nil {
			return nil, fmt.Errorf("the generated SDK of %s: %w", dep.GetPackage().GetName(), err)
		}
		var manifest struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(data, &manifest); err != nil || manifest.Name == "" {
			return nil, fmt.Errorf("the generated SDK of %s has no package name", dep.GetPackage().GetName())
		}
		if err := pm.Link(ctx, dir, manifest.Name, dep.GetPath()); err != nil {
			return nil, err
		}
		fmt.Fprintf(&imports, "  import * as %s from \"%s\";\n", dep.GetPackage().GetName(), manifest.Name)
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can import the SDK in your TypeScript code with:\n\n" + imports.String(),
	}, nil
}
