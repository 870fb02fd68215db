package mcpbench.contract.spring;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

import org.springframework.boot.jackson.JacksonComponent;

/** Writes an McpError the transport returns as an HTTP body as a JSON-RPC error object. */
@JacksonComponent
public class McpErrorSerializer extends ValueSerializer<McpError> {

	@Override
	public void serialize(McpError error, JsonGenerator gen, SerializationContext context) {
		var rpc = error.getJsonRpcError();
		gen.writeStartObject();
		gen.writeStringProperty("jsonrpc", "2.0");
		gen.writeNullProperty("id");
		gen.writeName("error");
		gen.writeStartObject();
		gen.writeNumberProperty("code", rpc != null ? rpc.code() : McpSchema.ErrorCodes.INTERNAL_ERROR);
		gen.writeStringProperty("message", rpc != null ? rpc.message() : error.getMessage());
		gen.writeEndObject();
		gen.writeEndObject();
	}

}
