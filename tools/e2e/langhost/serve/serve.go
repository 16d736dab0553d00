// Package serve holds what the e2e language hosts share: serving a LanguageRuntime on
// loopback the way every Pulumi plugin does (the port on the first line of stdout), reading
// the program's runtime options, and running a program with its output passed through.
//
// The Go module proxy on the project's machines serves github.com/pulumi/pulumi/pkg/v3 and
// sdk/v3 but refuses the language-host modules (sdk/python/cmd/pulumi-language-python/v3 and
// its siblings) at every version, so tools/e2e/toolchain builds these hosts, written for
// this project over the SDK's own packages (the Python toolchain, the gRPC protocol), beside
// the real CLI.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Main parses the host's command line (flags the CLI may pass, then the engine address),
// serves the runtime made by newHost and blocks until the engine closes it.
func Main(newHost func(engineAddress string) pulumirpc.LanguageRuntimeServer) {
	flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	flag.String("root", "", "Project root path (ignored: the engine sends ProgramInfo)")
	flag.Parse()
	engineAddress := ""
	if args := flag.Args(); len(args) > 0 {
		engineAddress = args[len(args)-1]
	}
	host := newHost(engineAddress)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: could not start the language host: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "fatal: language host stopped: %v\n", err)
		os.Exit(1)
	}
}

// Option is a string runtime option of Pulumi.yaml (`runtime.options.NAME`), "" when absent.
func Option(info *pulumirpc.ProgramInfo, name string) string {
	if info == nil || info.GetOptions() == nil {
		return ""
	}
	value, ok := info.GetOptions().GetFields()[name]
	if !ok {
		return ""
	}
	if s, ok := value.GetKind().(*structpb.Value_StringValue); ok {
		return s.StringValue
	}
	return ""
}

// ConfigEnv is the environment through which every Pulumi SDK reads the stack's config:
// PULUMI_CONFIG (a JSON object of "project:key" to value) and PULUMI_CONFIG_SECRET_KEYS.
func ConfigEnv(config map[string]string, secretKeys []string) ([]string, error) {
	if config == nil {
		config = map[string]string{}
	}
	values, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	keys := append([]string{}, secretKeys...)
	sort.Strings(keys)
	secrets, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	return []string{"PULUMI_CONFIG=" + string(values), "PULUMI_CONFIG_SECRET_KEYS=" + string(secrets)}, nil
}

// BailCode is the exit status with which a program says it has already reported its error
// through the engine (the Python exec script's and the Node.js runner's 32).
const BailCode = 32

// RunProgram runs cmd with the host's stdout and stderr (the engine shows them as the
// program's output) and turns its exit into a RunResponse.
func RunProgram(cmd *exec.Cmd, what string) *pulumirpc.RunResponse {
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.ExitStatus() == BailCode {
			return &pulumirpc.RunResponse{Bail: true}
		}
		// the text of Pulumi's own hosts
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}
	}
	return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run %s: %v", what, err)}
}

// Streamer writes into an InstallDependencies stream, as stdout or as stderr.
type Streamer struct {
	Send   func(*pulumirpc.InstallDependenciesResponse) error
	Stderr bool
}

func (s Streamer) Write(p []byte) (int, error) {
	chunk := append([]byte{}, p...)
	response := &pulumirpc.InstallDependenciesResponse{Stdout: chunk}
	if s.Stderr {
		response = &pulumirpc.InstallDependenciesResponse{Stderr: chunk}
	}
	if err := s.Send(response); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RunPlugin runs cmd for RunPlugin, streaming its output and ending with its exit code.
func RunPlugin(ctx context.Context, cmd *exec.Cmd, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sent := make(chan error, 2)
	pump := func(r io.Reader, wrap func([]byte) *pulumirpc.RunPluginResponse) {
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if serr := server.Send(wrap(append([]byte{}, buf[:n]...))); serr != nil {
					sent <- serr
					return
				}
			}
			if err != nil {
				sent <- nil
				return
			}
		}
	}
	go pump(stdout, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	})
	go pump(stderr, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	})
	for range 2 {
		if err := <-sent; err != nil {
			_ = cmd.Process.Kill()
			return err
		}
	}
	code := int32(0)
	if err := cmd.Wait(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return err
		}
		code = int32(exitErr.ExitCode())
	}
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// AppendArg appends "--name value" when value is not empty.
func AppendArg(args []string, name, value string) []string {
	if value == "" {
		return args
	}
	return append(args, "--"+name, value)
}

// PluginJSON is a package's pulumi-plugin.json: which resource plugin, at which version,
// the package needs.
type PluginJSON struct {
	Resource bool   `json:"resource"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Server   string `json:"server"`
}

// Dependencies turns the plugin files found into sorted, de-duplicated resource packages.
func Dependencies(plugins []PluginJSON) []*pulumirpc.PackageDependency {
	seen := map[string]bool{}
	var deps []*pulumirpc.PackageDependency
	for _, p := range plugins {
		if !p.Resource || p.Name == "" || seen[p.Name] {
			continue
		}
		seen[p.Name] = true
		v := p.Version
		if v != "" && v[0] != 'v' {
			v = "v" + v
		}
		deps = append(deps, &pulumirpc.PackageDependency{Kind: "resource", Name: p.Name, Version: v, Server: p.Server})
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].Name < deps[j].Name })
	return deps
}

// AsPlugins is deps in the older GetRequiredPlugins shape.
func AsPlugins(deps []*pulumirpc.PackageDependency) []*pulumirpc.PluginDependency {
	plugins := make([]*pulumirpc.PluginDependency, len(deps))
	for i, d := range deps {
		plugins[i] = &pulumirpc.PluginDependency{Kind: d.Kind, Name: d.Name, Version: d.Version, Server: d.Server}
	}
	return plugins
}

// ReadPluginJSON reads one pulumi-plugin.json; a file that is not one is skipped.
func ReadPluginJSON(path string) (PluginJSON, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return PluginJSON{}, false
	}
	var p PluginJSON
	if json.Unmarshal(data, &p) != nil {
		return PluginJSON{}, false
	}
	return p, true
}

// Base is what every host answers alike: the engine's address from the handshake, the
// host's version, no runtime-option prompts. A host embeds it.
type Base struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	EngineAddress string
	Version       string
}

// Handshake keeps the engine's address (the CLI also passes it on the command line).
func (b *Base) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		b.EngineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// GetPluginInfo answers the host's version.
func (b *Base) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: b.Version}, nil
}

// RuntimeOptionsPrompts has nothing to ask (`pulumi new` is not used here).
func (b *Base) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// DependencyInfos is a toolchain's package list in the protocol's shape.
func DependencyInfos(packages []plugin.DependencyInfo) *pulumirpc.GetProgramDependenciesResponse {
	deps := make([]*pulumirpc.DependencyInfo, len(packages))
	for i, p := range packages {
		deps[i] = &pulumirpc.DependencyInfo{Name: p.Name, Version: p.Version}
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}
}
