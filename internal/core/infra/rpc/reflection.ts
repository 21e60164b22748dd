import { BinaryReader } from '@bufbuild/protobuf/wire';
import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { DESCRIPTOR_SET_BASE64 } from '../../../contract/gen/descriptor-set.js';

const SERVICE_NAME = 'mcpd.control.v1.ControlPlane';

/** Splits a FileDescriptorSet (field 1: repeated FileDescriptorProto) into its files' bytes. */
function fileDescriptorProtos(set: Uint8Array): Buffer[] {
  const reader = new BinaryReader(set);
  const files: Buffer[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) files.push(Buffer.from(reader.bytes()));
    else reader.skip(wireType);
  }
  return files;
}

/**
 * Reflection is fed the exact descriptors from `buf build`: proto-loader's reconstructed ones
 * break strict clients such as `buf curl` (see docs/decisions.md).
 */
export function addReflection(server: Server): void {
  const files = fileDescriptorProtos(Buffer.from(DESCRIPTOR_SET_BASE64, 'base64'));
  const pkg = { [SERVICE_NAME]: { format: 'Protocol Buffer 3 DescriptorProto', type: {}, fileDescriptorProtos: files } };
  // The package-definition type wants proto-loader's full shape; only fileDescriptorProtos is read.
  new ReflectionService(pkg as unknown as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);
}

export function addHealth(server: Server): HealthImplementation {
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  return health;
}
