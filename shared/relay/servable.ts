import { isServable, servabilityReason } from './providers/index.ts';

/*
 * Which providers the relay can serve (docs/channel-review-api.md, "Channel"), for the review API and the console: the
 * relay's own adapters decide (shared/relay/providers/index.ts), so the mark can never disagree with what the relay does.
 */

/** Whether the relay can send a channel of this provider traffic, and why not when it cannot. */
export function isServableProvider(provider: string): { servable: true } | { servable: false; reason: string } {
  if (isServable(provider)) return { servable: true };
  return { servable: false, reason: servabilityReason(provider) ?? `provider "${provider}" is not servable yet` };
}
