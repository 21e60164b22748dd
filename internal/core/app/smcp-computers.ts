import { computerKey, type SmcpComputerStatus, type SmcpSettings } from '../../contract/model/smcp-computer-settings.js';
import { SmcpComputer, type ComputerDeps } from './smcp-computer.js';

/**
 * The computers of runtime.yaml `smcp:`. A reload reconnects only the computers whose connection
 * settings changed (URL, key, office, name or caller); the others keep their session and are only
 * told to re-check their config.
 */
export class SmcpComputers {
  private readonly running = new Map<string, SmcpComputer>();

  /** `api`: the door as the SMCP face sees it, asked for when the first computer starts (after the door is built). */
  constructor(private readonly deps: Omit<ComputerDeps, 'api'> & { api: () => ComputerDeps['api'] }) {}

  apply(settings: SmcpSettings | undefined): void {
    const wanted = new Map((settings?.computers ?? []).map((c) => [computerKey(settings as SmcpSettings, c), c]));
    for (const [key, c] of [...this.running]) {
      if (wanted.has(key)) continue;
      c.stop();
      this.running.delete(key);
    }
    for (const [key, c] of wanted) {
      const have = this.running.get(key);
      if (have) {
        have.configMayHaveChanged();
        continue;
      }
      const computer = new SmcpComputer(settings as SmcpSettings, c, { ...this.deps, api: this.deps.api() });
      this.running.set(key, computer);
      computer.start();
    }
    this.deps.onStatus();
  }

  status(): SmcpComputerStatus[] {
    return [...this.running.values()].map((c) => c.status()).sort((a, b) => a.name.localeCompare(b.name));
  }

  close(): void {
    for (const c of this.running.values()) c.stop();
    this.running.clear();
  }
}
