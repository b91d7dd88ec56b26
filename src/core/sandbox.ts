/** What isolates hook processes on this machine; shown wherever the user decides to trust hooks. */
export interface SandboxInfo {
  readonly available: boolean;
  readonly name: string;
  readonly description: string;
}

export function detectSandbox(): SandboxInfo {
  return { available: false, name: 'none', description: 'hooks run with your full user permissions.' };
}
