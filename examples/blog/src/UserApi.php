<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Http\Response;

/** `GET /api/users/{id}` — a user as JSON; JSON errors whatever the client accepts. */
final readonly class UserApi
{
    public function show(int $id): Response
    {
        $user = User::find($id);

        return $user === null
            ? Response::json(['error' => ['status' => 404, 'message' => 'User not found']], 404)
            : Response::json($user);
    }
}
