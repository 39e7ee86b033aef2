<?php

declare(strict_types=1);

namespace Petrel\Socket;

/**
 * Client-side TLS settings. Safe by default: the peer's certificate is verified against
 * the system CA store and must match $peerName.
 */
final class TlsOptions
{
    public function __construct(
        public readonly ?string $peerName = null,
        public readonly bool $verifyPeer = true,
        public readonly ?string $caFile = null,
        public readonly ?string $caPath = null,
        public readonly bool $allowSelfSigned = false,
        public readonly ?string $certificate = null,
        public readonly ?string $privateKey = null,
        public readonly int $cryptoMethod = \STREAM_CRYPTO_METHOD_TLSv1_2_CLIENT | \STREAM_CRYPTO_METHOD_TLSv1_3_CLIENT,
    ) {
    }

    public function withPeerName(string $peerName): self
    {
        return $this->with(['peerName' => $peerName]);
    }

    public function withCaFile(string $caFile): self
    {
        return $this->with(['caFile' => $caFile]);
    }

    /** For tests and private networks only: accepts any certificate. */
    public function withoutVerification(): self
    {
        return $this->with(['verifyPeer' => false, 'allowSelfSigned' => true]);
    }

    /** @return array<string, mixed> options for the 'ssl' stream context */
    public function toContextOptions(string $defaultPeerName): array
    {
        $options = [
            'peer_name' => $this->peerName ?? $defaultPeerName,
            'verify_peer' => $this->verifyPeer,
            'verify_peer_name' => $this->verifyPeer,
            'allow_self_signed' => $this->allowSelfSigned,
            'SNI_enabled' => true,
        ];
        foreach (['cafile' => $this->caFile, 'capath' => $this->caPath, 'local_cert' => $this->certificate, 'local_pk' => $this->privateKey] as $key => $value) {
            if ($value !== null) {
                $options[$key] = $value;
            }
        }

        return $options;
    }

    /** @param array<string, mixed> $changes */
    private function with(array $changes): self
    {
        $values = \get_object_vars($this);

        return new self(...\array_merge($values, $changes));
    }
}
