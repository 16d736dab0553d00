// pulumi-language-python for the e2e toolchain: runs a Python Pulumi program (and a Python
// plugin) in the virtual environment Pulumi.yaml names, through the SDK's Python toolchain
// package (pip, poetry or uv, as `runtime.options.toolchain` says), with the SDK's own exec
// script, pulumi-language-python-exec, installed beside this binary.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"

	"local/tools-pulumi/langhost/serve"
)

// version is stamped by tools/e2e/toolchain (the CLI's version).
var version = "0.0.0"

type host struct {
	serve.Base
	exec string
}

func main() {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
	execScript := filepath.Join(filepath.Dir(self), "pulumi-language-python-exec")
	if _, err := os.Stat(execScript); err != nil {
		fmt.Fprintf(os.Stderr, "fatal: missing executor %s: %v\n", execScript, err)
		os.Exit(1)
	}
	serve.Main(func(engineAddress string) pulumirpc.LanguageRuntimeServer {
		return &host{Base: serve.Base{EngineAddress: engineAddress, Version: version}, exec: execScript}
	})
}

// toolchainFor resolves the Python toolchain of a program from its runtime options.
func toolchainFor(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	options := toolchain.PythonOptions{
		Root:       info.GetRootDirectory(),
		ProgramDir: info.GetProgramDirectory(),
		Virtualenv: serve.Option(info, "virtualenv"),
		Toolchain:  toolchain.Pip,
	}
	switch serve.Option(info, "toolchain") {
	case "", "pip":
		if serve.Option(info, "toolchain") == "" && options.Virtualenv == "" {
			options.Toolchain = toolchain.Auto
		}
	case "poetry":
		options.Toolchain = toolchain.Poetry
	case "uv":
		options.Toolchain = toolchain.Uv
	default:
		return nil, fmt.Errorf("unknown Python toolchain %q in Pulumi.yaml", serve.Option(info, "toolchain"))
	}
	return toolchain.ResolveToolchain(options)
}

// pluginScan prints the pulumi-plugin.json of every installed distribution that has one:
// how a Python package says which resource plugin (and version) it needs.
const pluginScan = `
import importlib.metadata, json
found = []
for dist in importlib.metadata.distributions():
    for f in dist.files or []:
        if f.name == "pulumi-plugin.json":
            try:
                data = json.loads(f.locate().read_text())
            except Exception:
                continue
            data.setdefault("name", dist.metadata["Name"].removeprefix("pulumi_").removeprefix("pulumi-"))
            found.append(data)
print(json.dumps(found))
`

func (h *host) requiredPackages(ctx context.Context, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, error) {
	tc, err := toolchainFor(info)
	if err != nil {
		return nil, err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return nil, err
	}
	cmd, err := tc.Command(ctx, "-c", pluginScan)
	if err != nil {
		return nil, err
	}
	cmd.Dir = info.GetProgramDirectory()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the program's Pulumi packages: %w", err)
	}
	var plugins []serve.PluginJSON
	if err := json.Unmarshal(out, &plugins); err != nil {
		return nil, fmt.Errorf("reading the program's Pulumi packages: %w", err)
	}
	return serve.Dependencies(plugins), nil
}

func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	deps, err := h.requiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: deps}, nil
}

func (h *host) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	deps, err := h.requiredPackages(ctx, req.GetInfo())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: serve.AsPlugins(deps)}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := toolchainFor(req.GetInfo())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	args := []string{"-u", h.exec}
	args = serve.AppendArg(args, "monitor", req.GetMonitorAddress())
	args = serve.AppendArg(args, "engine", h.EngineAddress)
	args = serve.AppendArg(args, "project", req.GetProject())
	args = serve.AppendArg(args, "root_directory", req.GetInfo().GetRootDirectory())
	args = serve.AppendArg(args, "stack", req.GetStack())
	args = serve.AppendArg(args, "pwd", req.GetPwd())
	if req.GetDryRun() {
		args = append(args, "--dry_run", "true")
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
	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	env, err := serve.ConfigEnv(req.GetConfig(), req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = req.GetInfo().GetProgramDirectory()
	return serve.RunProgram(cmd, "the Python program"), nil
}

func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	tc, err := toolchainFor(req.GetInfo())
	if err != nil {
		return err
	}
	stdout := serve.Streamer{Send: server.Send}
	stderr := serve.Streamer{Send: server.Send, Stderr: true}
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	ctx := server.Context()
	if err := tc.InstallDependencies(ctx, dir, req.GetUseLanguageVersionTools(), true, stdout, stderr); err != nil {
		return err
	}
	return nil
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	tc, err := toolchainFor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	about, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: about.PythonExecutable, Version: about.PythonVersion.String()}, nil
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	tc, err := toolchainFor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	packages, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, err
	}
	return serve.DependencyInfos(packages), nil
}

// RunPlugin runs a Python plugin (a directory with PulumiPlugin.yaml and __main__.py) as
// `python DIR ARGS...` in its virtual environment.
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	ctx := server.Context()
	tc, err := toolchainFor(req.GetInfo())
	if err != nil {
		return err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return err
	}
	program := req.GetInfo().GetProgramDirectory()
	if req.GetInfo().GetEntryPoint() != "" && req.GetInfo().GetEntryPoint() != "." {
		program = filepath.Join(program, req.GetInfo().GetEntryPoint())
	}
	cmd, err := tc.Command(ctx, append([]string{"-u", program}, req.GetArgs()...)...)
	if err != nil {
		return err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, req.GetEnv()...)
	cmd.Dir = req.GetPwd()
	return serve.RunPlugin(ctx, cmd, server)
}
