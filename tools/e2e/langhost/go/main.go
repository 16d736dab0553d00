// pulumi-language-go for the e2e toolchain: builds a Go Pulumi program with `go build` (or
// takes the prebuilt `binary` runtime option) and runs it with the environment the Go SDK's
// pulumi.Run reads; generates a package's Go SDK and links it into the program's go.mod for
// `pulumi package add` and `pulumi install`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	codegen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"

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

type module struct {
	Path string
	Dir  string
	Main bool
}

// modules lists the program's modules (`go list -m -json all`), downloading them if needed.
func modules(ctx context.Context, dir string) ([]module, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", "all")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m all in %s: %s", dir, strings.TrimSpace(stderr.String()))
	}
	var mods []module
	decoder := json.NewDecoder(bytes.NewReader(out))
	for {
		var m module
		if err := decoder.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		mods = append(mods, m)
	}
	return mods, nil
}

// plugins finds the pulumi-plugin.json files of the program's dependencies: a generated Go
// SDK has one in its package directory.
func plugins(ctx context.Context, dir string) ([]serve.PluginJSON, error) {
	mods, err := modules(ctx, dir)
	if err != nil {
		return nil, err
	}
	var found []serve.PluginJSON
	for _, m := range mods {
		if m.Main || m.Dir == "" {
			continue
		}
		_ = filepath.WalkDir(m.Dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && strings.Count(strings.TrimPrefix(path, m.Dir), string(filepath.Separator)) > 4 {
				return filepath.SkipDir
			}
			if d.Name() == "pulumi-plugin.json" {
				if p, ok := serve.ReadPluginJSON(path); ok {
					found = append(found, p)
				}
			}
			return nil
		})
	}
	return found, nil
}

func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	found, err := plugins(ctx, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: serve.Dependencies(found)}, nil
}

func (h *host) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	found, err := plugins(ctx, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: serve.AsPlugins(serve.Dependencies(found))}, nil
}

// program is the binary to run: the `binary` runtime option, or the program built now.
func program(ctx context.Context, info *pulumirpc.ProgramInfo) (string, func(), error) {
	dir := info.GetProgramDirectory()
	if binary := serve.Option(info, "binary"); binary != "" {
		if !filepath.IsAbs(binary) {
			binary = filepath.Join(dir, binary)
		}
		return binary, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "pulumi-go.")
	if err != nil {
		return "", nil, err
	}
	out := filepath.Join(tmp, "program")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = dir
	if entry := info.GetEntryPoint(); entry != "" && entry != "." {
		cmd.Args[len(cmd.Args)-1] = entry
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("go build of the program failed:\n%s", stderr.String())
	}
	return out, func() { _ = os.RemoveAll(tmp) }, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	binary, cleanup, err := program(ctx, req.GetInfo())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	defer cleanup()
	config, err := serve.ConfigEnv(req.GetConfig(), req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), config...)
	env = append(env,
		"PULUMI_MONITOR="+req.GetMonitorAddress(),
		"PULUMI_ENGINE="+h.EngineAddress,
		"PULUMI_PROJECT="+req.GetProject(),
		"PULUMI_STACK="+req.GetStack(),
		"PULUMI_ORGANIZATION="+req.GetOrganization(),
		"PULUMI_ROOT_DIRECTORY="+req.GetInfo().GetRootDirectory(),
		fmt.Sprintf("PULUMI_DRY_RUN=%v", req.GetDryRun()),
		fmt.Sprintf("PULUMI_PARALLEL=%d", req.GetParallel()),
	)
	cmd := exec.CommandContext(ctx, binary, req.GetArgs()...)
	cmd.Env = env
	cmd.Dir = req.GetPwd()
	return serve.RunProgram(cmd, "the Go program"), nil
}

func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	cmd := exec.CommandContext(server.Context(), "go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Stdout = serve.Streamer{Send: server.Send}
	cmd.Stderr = serve.Streamer{Send: server.Send, Stderr: true}
	return cmd.Run()
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{Executable: goBin, Version: strings.TrimSpace(string(out))}, nil
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	mods, err := modules(ctx, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, err
	}
	var deps []*pulumirpc.DependencyInfo
	for _, m := range mods {
		if !m.Main {
			deps = append(deps, &pulumirpc.DependencyInfo{Name: m.Path})
		}
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}

// GeneratePackage writes the package's Go SDK (pkg/v3/codegen/go); for `pulumi package add`
// it is a module of its own (the schema's importBasePath without its last element).
func (h *host) GeneratePackage(
	_ context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	if len(req.GetExtraFiles()) > 0 {
		return nil, fmt.Errorf("overlays are not supported for Go")
	}
	return sdkgen.GeneratePackage(req, func(
		pkg *schema.Package, req *pulumirpc.GeneratePackageRequest, _ schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return codegen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
	})
}

// Link points the program's go.mod at each generated SDK: a require of the SDK's module and a
// replace of it by the SDK's directory (`go mod tidy`, the install step, completes the rest).
func (h *host) Link(_ context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	dir := req.GetInfo().GetProgramDirectory()
	path := filepath.Join(dir, "go.mod")
	stat, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("the program's go.mod: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	mod, err := modfile.Parse(path, data, nil)
	if err != nil {
		return nil, err
	}
	var imports strings.Builder
	for _, dep := range req.GetPackages() {
		sdk := filepath.Join(dir, dep.GetPath())
		sdkMod, err := os.ReadFile(filepath.Join(sdk, "go.mod"))
		if err != nil {
			return nil, fmt.Errorf("the generated SDK of %s: %w", dep.GetPackage().GetName(), err)
		}
		module := modfile.ModulePath(sdkMod)
		if module == "" {
			return nil, fmt.Errorf("the generated SDK of %s has no module path", dep.GetPackage().GetName())
		}
		if err := mod.AddRequire(module, "v0.0.0-00010101000000-000000000000"); err != nil {
			return nil, err
		}
		if err := mod.AddReplace(module, "", "./"+filepath.ToSlash(dep.GetPath()), ""); err != nil {
			return nil, err
		}
		fmt.Fprintf(&imports, "  import \"%s/%s\"\n", module, dep.GetPackage().GetName())
	}
	mod.Cleanup()
	data, err = mod.Format()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, stat.Mode().Perm()); err != nil {
		return nil, err
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can import the SDK in your Go code with:\n\n" + imports.String(),
	}, nil
}
