<?php

// A complete small app — routes, a model, a template: bin/petrel start examples/notes/app.php
declare(strict_types=1);

use Petrel\Database\Database;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Web\App;
use Petrel\Web\Model\Model;
use Petrel\Web\Validation\Validator;
use Petrel\Web\View\View;

/** @property int $id @property string $text */
final class Note extends Model
{
    protected static string $table = 'notes';
    protected static array $fillable = ['text'];
    protected static array $casts = ['id' => 'int'];
}

$db = Database::fromEnv('sqlite://' . sys_get_temp_dir() . '/petrel-notes.sqlite');
$db->execute('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
Model::setDatabase($db);
$view = new View(__DIR__ . '/templates');

$app = new App();
$app->get('/', fn () => $view->response('notes.html.twig', ['notes' => Note::all()]));
$app->post('/notes', function (Request $request): Response {
    $input = Validator::validate($request->getParsedBody(), ['text' => 'required|string|max:200']);
    Note::create($input);

    return Response::redirect('/', 303);
});
$app->get('/api/notes/{id:\d+}', fn (int $id) => Note::findOrFail($id));   // a model answers as JSON

return $app;
