package mcpbench.sdk;

import java.util.List;
import java.util.Map;

import mcpbench.contract.DimensionContract;

import static mcpbench.contract.DimensionContract.ECHO_PAYLOAD;
import static mcpbench.contract.DimensionContract.STEPPED_WORK;
import static mcpbench.contract.DimensionContract.STREAM_PROGRESS;
import static mcpbench.sdk.Clients.JSON;

/** Issue 37: tools/list at scale (EXTRA_TOOLS=N more tools), payload size, streamed progress and cancellation
 * (DIMENSION_TOOLS=1: echo_payload, stream_progress, stepped_work);
 * off unless those contract settings turn them on (docs/workload.md §6).
 * Declared like BenchTools' tools and registered with them; the tools, their checks and replies are the contract's
 * (servers/common-java/mcp: DimensionContract). */
final class DimensionTools {

	private DimensionTools() {
	}

	/** The tools EXTRA_TOOLS and DIMENSION_TOOLS ask for (none when both are unset), each with its call. */
	static List<BenchTools.Definition> definitions(Clients clients, String serverType) {
		return DimensionContract.tools(System.getenv("EXTRA_TOOLS"), System.getenv("DIMENSION_TOOLS")).stream()
			.map(tool -> switch (tool.name()) {
				case ECHO_PAYLOAD -> new BenchTools.Definition(tool,
						args -> JSON.writeValueAsString(DimensionContract.echoPayload(args, serverType)));
				case STREAM_PROGRESS -> new BenchTools.Definition(tool,
						(args, progress) -> streamProgress(args, progress, serverType));
				case STEPPED_WORK -> new BenchTools.Definition(tool,
						(args, progress) -> steppedWork(clients, args, progress, serverType));
				default -> new BenchTools.Definition(tool,
						args -> JSON.writeValueAsString(DimensionContract.extraResult(tool.name(), args, serverType)));
			})
			.toList();
	}

	/**
	 * count progress notifications (1 … count of count) when the call carries a progress token, each handed
	 * to the SDK and written on the call's reply before the next (Mcp.progress); none without one.
	 */
	private static String streamProgress(Map<String, Object> args, BenchTools.Progress progress, String serverType) {
		int count = DimensionContract.progressCount(args);
		for (int i = 1; progress != null && i <= count; i++) {
			progress.send(i, count);
		}
		return JSON.writeValueAsString(new DimensionContract.ProgressResult(count, progress != null ? count : 0, serverType));
	}

	/**
	 * DimensionContract's stepped_work loop, pushing with the shared Lettuce connection. A sync tool learns of a
	 * cancellation only by its thread's interrupt, and mcp-core 2.1.0 never sends one: its transports block on the
	 * call and it has no notifications/cancelled handler (README), so the loop runs to the end.
	 */
	private static String steppedWork(Clients clients, Map<String, Object> args, BenchTools.Progress progress,
			String serverType) {
		return JSON.writeValueAsString(DimensionContract.steppedWork(args, (list, time) -> clients.redis().rpush(list, time),
				progress == null ? null : progress::send, serverType));
	}

}
