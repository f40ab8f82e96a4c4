import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponseSchema,
  CodeGeneratorResponse_Feature,
  type CodeGeneratorRequest,
} from '@bufbuild/protobuf/wkt';

/** A file a plugin writes, relative to its `out` directory in buf.gen.yaml. */
export interface PluginFile {
  name: string;
  content: string;
}

/**
 * The protoc plugin protocol, once for this directory's plugins: buf writes a
 * CodeGeneratorRequest to stdin and reads a CodeGeneratorResponse from
 * stdout. A thrown error is reported to buf as the plugin's error.
 */
export function runPlugin(generate: (request: CodeGeneratorRequest) => PluginFile[]): void {
  const chunks: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
  process.stdin.on('end', () => {
    const request = fromBinary(CodeGeneratorRequestSchema, Buffer.concat(chunks));
    const response = create(CodeGeneratorResponseSchema, {
      supportedFeatures: BigInt(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL),
    });
    try {
      response.file = generate(request).map((file) => ({ $typeName: 'google.protobuf.compiler.CodeGeneratorResponse.File', insertionPoint: '', ...file }));
    } catch (error) {
      response.error = error instanceof Error ? error.message : String(error);
    }
    process.stdout.write(toBinary(CodeGeneratorResponseSchema, response));
  });
}
