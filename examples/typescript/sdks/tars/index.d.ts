// Declarations of the `tars` package (plugin/schema.json), written by hand for type-checking
// this example without the Pulumi CLI. `pulumi package add ../../plugin` generates the real
// SDK into this directory (same names and shapes); tests/polyglot/test_examples.py checks these
// declarations against the schema: every component, type, property, optionality and which
// properties are plain (no pulumi.Input).
import * as pulumi from "@pulumi/pulumi";

type Any = any; // pulumi.json#/Any

// --- enums ---------------------------------------------------------------------------------

export declare const SubType: { readonly TARS: "tars"; readonly NORMAL: "normal" };
export type SubType = (typeof SubType)[keyof typeof SubType];

export declare const Mode: { readonly EXPAND: "expand"; readonly CRD: "crd" };
export type Mode = (typeof Mode)[keyof typeof Mode];

export declare const ImageType: {
    readonly BASE: "base";
    readonly SERVER: "server";
    readonly NODE: "node";
};
export type ImageType = (typeof ImageType)[keyof typeof ImageType];

export declare const Role: {
    readonly ADMIN: "admin";
    readonly OPERATOR: "operator";
    readonly DEVELOPER: "developer";
};
export type Role = (typeof Role)[keyof typeof Role];

// --- object types --------------------------------------------------------------------------

export interface ServantArgs {
    name: pulumi.Input<string>;
    port: pulumi.Input<number>;
    thread?: pulumi.Input<number>;
    connection?: pulumi.Input<number>;
    capacity?: pulumi.Input<number>;
    timeout?: pulumi.Input<number>;
    isTars?: pulumi.Input<boolean>;
    isTcp?: pulumi.Input<boolean>;
}

export interface ServerPortArgs {
    name: pulumi.Input<string>;
    port: pulumi.Input<number>;
    isTcp?: pulumi.Input<boolean>;
}

export interface TarsSpecArgs {
    template: pulumi.Input<string>;
    profile?: pulumi.Input<string>;
    asyncThread?: pulumi.Input<number>;
    servants?: ServantArgs[];
    ports?: ServerPortArgs[];
}

export interface NormalSpecArgs {
    ports?: ServerPortArgs[];
}

export interface EnvVarArgs {
    name: pulumi.Input<string>;
    value?: pulumi.Input<string>;
    valueFrom?: pulumi.Input<{ [key: string]: Any }>;
}

export interface HostPortArgs {
    nameRef: pulumi.Input<string>;
    port: pulumi.Input<number>;
}

export interface K8sSpecArgs {
    replicas?: pulumi.Input<number>;
    daemonSet?: boolean;
    serviceAccount?: pulumi.Input<string>;
    env?: EnvVarArgs[];
    envFrom?: pulumi.Input<{ [key: string]: Any }>[];
    hostIPC?: pulumi.Input<boolean>;
    hostNetwork?: pulumi.Input<boolean>;
    hostPorts?: HostPortArgs[];
    mounts?: pulumi.Input<{ [key: string]: Any }>[];
    nodeSelector?: pulumi.Input<{ [key: string]: Any }>[];
    abilityAffinity?: pulumi.Input<string>;
    notStacked?: pulumi.Input<boolean>;
    podManagementPolicy?: pulumi.Input<string>;
    readinessGates?: pulumi.Input<string>[];
    command?: pulumi.Input<string>[];
    args?: pulumi.Input<string>[];
    resources?: pulumi.Input<{ [key: string]: Any }>;
    updateStrategy?: pulumi.Input<{ [key: string]: Any }>;
    imagePullPolicy?: pulumi.Input<string>;
    launcherType?: pulumi.Input<string>;
}

export interface ReleaseArgs {
    id: pulumi.Input<string>;
    image: pulumi.Input<string>;
    secret?: pulumi.Input<string>;
    time?: pulumi.Input<string>;
    nodeImage?: pulumi.Input<string>;
    nodeSecret?: pulumi.Input<string>;
}

export interface ImageRefArgs {
    image: string;
    secret?: string;
}

export interface RegistryRefArgs {
    registry: string;
    secret?: string;
}

export interface ImageBuildArgs {
    executor: ImageRefArgs;
    maxBuildTime?: number;
    idFormat?: string;
}

export interface RecordLimitArgs {
    texitedPod?: number;
    tconfigHistory?: number;
    timageRelease?: number;
}

export interface UpChainEndpointArgs {
    host: string;
    port: number;
    timeout?: number;
    isTcp?: boolean;
}

export interface FrameworkConfigArgs {
    nodeImage: ImageRefArgs;
    imageBuild: ImageBuildArgs;
    imageUpload: RegistryRefArgs;
    recordLimit?: RecordLimitArgs;
    upChain?: { [key: string]: UpChainEndpointArgs[] };
    expand?: { [key: string]: string };
}

export interface ImageReleaseArgs {
    id: string;
    image: string;
    secret?: string;
    createPerson?: string;
    createTime?: string;
    mark?: string;
}

export interface BusinessArgs {
    name: string;
    show: string;
    weight?: number;
    mark?: string;
}

export interface TreeAppArgs {
    name: string;
    businessRef: string;
    mark?: string;
}

export interface AuthorizationArgs {
    role: Role;
    flag: string;
}

// --- components ----------------------------------------------------------------------------

export interface TFrameworkArgs {
    namespace: string;
    config?: FrameworkConfigArgs;
    mode?: Mode;
    templates?: { [key: string]: string };
    skipAwait?: boolean;
    externalReplicas?: boolean;
    existingConfig?: boolean;
}

export declare class TFramework extends pulumi.ComponentResource {
    readonly namespace: pulumi.Output<string>;
    readonly mode: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly manifests: pulumi.Output<{ [key: string]: Any }[]>;
    constructor(name: string, args: TFrameworkArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TServerArgs {
    framework: string;
    app: pulumi.Input<string>;
    server: pulumi.Input<string>;
    subType?: SubType;
    important?: pulumi.Input<number>;
    tars?: TarsSpecArgs;
    normal?: NormalSpecArgs;
    k8s?: K8sSpecArgs;
    release?: ReleaseArgs;
    labels?: { [key: string]: pulumi.Input<string> };
    annotations?: { [key: string]: pulumi.Input<string> };
    skipAwait?: boolean;
    externalReplicas?: boolean;
}

export declare class TServer extends pulumi.ComponentResource {
    readonly objectName: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly mutated: pulumi.Output<{ [key: string]: Any }>;
    readonly manifests: pulumi.Output<{ [key: string]: Any }[]>;
    readonly scaleTargetRef: pulumi.Output<{ [key: string]: string } | undefined>;
    constructor(name: string, args: TServerArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TTemplateArgs {
    framework: string;
    templateName: string;
    content: string;
    parent: string;
    labels?: { [key: string]: string };
    annotations?: { [key: string]: string };
}

export declare class TTemplate extends pulumi.ComponentResource {
    readonly templateName: pulumi.Output<string>;
    readonly parentTemplate: pulumi.Output<string>;
    readonly parentChain: pulumi.Output<string[]>;
    readonly objects: pulumi.Output<string[]>;
    readonly manifests: pulumi.Output<{ [key: string]: Any }[]>;
    constructor(name: string, args: TTemplateArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TConfigArgs {
    framework: string;
    app: string;
    configName: string;
    configContent?: string;
    server?: string;
    name?: string;
    podSeq?: string;
    activated?: boolean;
    version?: string;
    updateReason?: string;
    labels?: { [key: string]: string };
    annotations?: { [key: string]: string };
}

export declare class TConfig extends pulumi.ComponentResource {
    readonly objectName: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly mutated: pulumi.Output<{ [key: string]: Any }>;
    constructor(name: string, args: TConfigArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TImageArgs {
    framework: string;
    name: string;
    imageType: ImageType;
    supportedType?: string[];
    releases?: ImageReleaseArgs[];
    default?: string;
    mark?: string;
    labels?: { [key: string]: string };
    annotations?: { [key: string]: string };
    ownReleases?: boolean;
}

export declare class TImage extends pulumi.ComponentResource {
    readonly objectName: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly mutated: pulumi.Output<{ [key: string]: Any }>;
    readonly releaseIds: pulumi.Output<string[]>;
    constructor(name: string, args: TImageArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TTreeArgs {
    framework: string;
    businesses?: BusinessArgs[];
    apps?: TreeAppArgs[];
    labels?: { [key: string]: string };
    annotations?: { [key: string]: string };
}

export declare class TTree extends pulumi.ComponentResource {
    readonly objectName: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly mutated: pulumi.Output<{ [key: string]: Any }>;
    constructor(name: string, args: TTreeArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TAccountArgs {
    framework: string;
    username: string;
    password?: pulumi.Input<string>;
    bcryptPassword?: pulumi.Input<string>;
    activated?: boolean;
    authorization?: AuthorizationArgs[];
    extra?: string[];
    labels?: { [key: string]: string };
    annotations?: { [key: string]: string };
    saltKey?: pulumi.Input<string>;
}

export declare class TAccount extends pulumi.ComponentResource {
    readonly objectName: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    readonly mutated: pulumi.Output<{ [key: string]: Any }>;
    constructor(name: string, args: TAccountArgs, opts?: pulumi.ComponentResourceOptions);
}

// --- the platform install ------------------------------------------------------------------

export interface TarsControllerArgs {
    values: { [key: string]: Any };
    caCertPem?: pulumi.Input<string>;
    caKeyPem?: pulumi.Input<string>;
    existingNamespace?: boolean;
}

export declare class TarsController extends pulumi.ComponentResource {
    readonly caCertPem: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    constructor(name: string, args: TarsControllerArgs, opts?: pulumi.ComponentResourceOptions);
}

export interface TarsFrameworkInstallArgs {
    values: { [key: string]: Any };
    namespace: string;
    controller?: string;
    nodes?: string[];
    localVolumeNodes?: string[];
    createNamespace?: boolean;
}

export declare class TarsFrameworkInstall extends pulumi.ComponentResource {
    readonly namespace: pulumi.Output<string>;
    readonly objects: pulumi.Output<string[]>;
    constructor(
        name: string,
        args: TarsFrameworkInstallArgs,
        opts?: pulumi.ComponentResourceOptions,
    );
}
