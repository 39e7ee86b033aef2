<?php

declare(strict_types=1);

namespace App\Controller;

use Symfony\Component\HttpFoundation\BinaryFileResponse;
use Symfony\Component\HttpFoundation\ResponseHeaderBag;
use Symfony\Component\HttpFoundation\StreamedResponse;

final class FileController
{
    /** A static file through Symfony: Range requests get 206 from BinaryFileResponse. */
    public function download(): BinaryFileResponse
    {
        $response = new BinaryFileResponse(\dirname(__DIR__, 2) . '/public/petrel.txt', 200, ['Content-Type' => 'text/plain; charset=utf-8']);
        $response->setContentDisposition(ResponseHeaderBag::DISPOSITION_INLINE, 'petrel.txt');

        return $response;
    }

    /** Output produced by a callback: lines 1 to 1000. */
    public function stream(): StreamedResponse
    {
        return new StreamedResponse(static function (): void {
            for ($i = 1; $i <= 1000; $i++) {
                echo "line {$i}\n";
                \flush();
            }
        }, 200, ['Content-Type' => 'text/plain; charset=utf-8']);
    }
}
