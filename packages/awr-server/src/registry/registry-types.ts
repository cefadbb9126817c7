/** One project the shared service may serve. `root` is canonical and absolute. */
export interface RegistryProject {
  readonly key: string;
  readonly root: string;
  readonly project_id: string;
}

/** A read-only grant of one immutable workstream version (registry version 2). */
export interface WorkstreamGrant {
  readonly project: string;
  readonly workstream_id: string;
  readonly authority_version: number;
}

/**
 * A client credential. The token itself is not kept: only its SHA-256 digest, which the HTTP
 * guard compares in constant time.
 */
export interface RegistryClient {
  readonly id: string;
  readonly token_env: string;
  readonly tokenDigest: Buffer;
  /** Keys this client may read (includes every key it may write). */
  readonly read: ReadonlySet<string>;
  readonly write: ReadonlySet<string>;
  readonly workstreams: readonly WorkstreamGrant[];
}

export interface Registry {
  readonly file: string;
  readonly version: 1 | 2;
  /** Host names (optionally `name:port`) accepted in the Host header; empty means loopback only. */
  readonly allowed_hosts: readonly string[];
  /** Exact origins (`scheme://host[:port]`) accepted in the Origin header. */
  readonly allowed_origins: readonly string[];
  readonly projects: readonly RegistryProject[];
  readonly clients: readonly RegistryClient[];
}
